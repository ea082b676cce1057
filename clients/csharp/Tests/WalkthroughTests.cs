using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using UnityEngine;

namespace Podium.Tests
{
    /// <summary>
    /// The flow of Tests/Integration/browser/test_game_page.py, through the C# client: two players
    /// befriend, one challenges the other after a score, the challenge arrives live, the other
    /// beats it, and both hear of the completion live.
    /// </summary>
    internal static class WalkthroughTests
    {
        private const string Board = "com.example.dash.highscore";

        public static void Register(List<TestCase> tests)
        {
            tests.Add(new TestCase
            {
                Name = "walkthrough: two players befriend, a challenge arrives live, is beaten, both hear it live",
                NeedsServer = true,
                Body = World.Test(TwoPlayers),
            });
        }

        private static async Task TwoPlayers(World world)
        {
            var ann = await world.PlayerAsync("ann");
            var bo = await world.PlayerAsync("bo");
            Check.NotEqual(ann.PlayerId, bo.PlayerId, "two players");
            var annFeed = world.FeedOf(ann);
            var boFeed = world.FeedOf(bo);
            await Task.WhenAll(ann.ConnectAsync(new[] { "dash" }), bo.ConnectAsync(new[] { "dash" }));
            Check.That(ann.IsConnected && bo.IsConnected, "both sockets are open");

            // Friends: Ann asks from the game, Bo hears it live and accepts; Ann hears that live.
            {
                var podium = ann;
                var friendId = bo.PlayerId;
                // docs:begin friends-request
                var relation = await podium.RequestFriendAsync(friendId, "dash");
                Debug.Log("request sent: " + relation.State); // outgoing_request
                // docs:end friends-request
                Check.Equal(FriendState.OutgoingRequest, relation.State, "Ann's side after asking");
            }
            var requested = await boFeed.WaitForAsync("friend.requested");
            Check.Equal(ann.PlayerId, requested.Details["playerId"], "friend.requested names Ann");
            Check.Equal("dash", requested.GameId, "in the game it was sent from");
            Check.NotNull(requested.InboxId, "friend.requested is kept in the inbox");
            {
                var podium = bo;
                // docs:begin friends-accept
                var friends = await podium.GetFriendsAsync();
                foreach (var asking in friends.Incoming)
                    await podium.AcceptFriendAsync(asking.PlayerId, "dash");
                // docs:end friends-accept
                Check.Sequence(new[] { ann.PlayerId }, friends.Incoming.Select(p => p.PlayerId), "Bo's incoming requests");
            }
            var accepted = await annFeed.WaitForAsync("friend.accepted");
            Check.Equal(bo.PlayerId, accepted.Details["playerId"], "friend.accepted names Bo");
            var annFriends = await ann.GetFriendsAsync();
            Check.Sequence(new[] { bo.PlayerId }, annFriends.Friends.Select(p => p.PlayerId), "Ann's friends");
            Check.That(annFriends.Outgoing.Count == 0 && annFriends.Incoming.Count == 0, "no request left waiting");

            // Bo has no score: challenging is refused with conflict.
            var conflict = await Check.FailsAsync(ErrorCodes.Conflict,
                () => bo.IssueScoreChallengeAsync("dash", Board, new[] { ann.PlayerId }), "a challenge without a score");
            Check.Equal<int?>(409, conflict.Status, "conflict is 409");

            // Bo's game shows challenges as they come.
            var shown = new List<string>();
            {
                var podium = bo;
                Action<string, string> ShowChallenge = (id, text) => shown.Add(id + " " + text);
                // docs:begin challenge-receive
                podium.NotificationReceived += notification =>
                {
                    if (notification.Kind == "challenge.received")
                        ShowChallenge((string)notification.Details["challengeId"], notification.Message);
                    else if (notification.Kind == "challenge.completed")
                        Debug.Log(notification.Message); // "You completed …'s challenge (1500 against 1200)"
                };
                // docs:end challenge-receive
            }

            // Ann scores and challenges Bo; Bo hears it live.
            var annScore = await ann.SubmitScoreAsync("dash", Board, 1200);
            Check.Equal(1200L, annScore.Entry.Value, "Ann's entry");
            ChallengeDetail issued;
            {
                var podium = ann;
                var friendId = bo.PlayerId;
                // docs:begin challenge-issue
                var challenge = await podium.IssueScoreChallengeAsync("dash", "com.example.dash.highscore",
                    new[] { friendId }, "beat this!");
                // docs:end challenge-issue
                Check.Equal("score", challenge.Kind, "a score challenge");
                Check.Equal<long?>(1200, challenge.IssuerValue, "the value to beat");
                Check.Equal("pending", challenge.Receiver(bo.PlayerId).State, "Bo is pending");
                issued = challenge;
            }
            Check.Sequence(new[] { issued.ChallengeId }, (await ann.GetIssuedChallengesAsync("dash")).Select(c => c.ChallengeId),
                "Ann's issued challenges");
            var received = await boFeed.WaitForAsync("challenge.received");
            Check.Equal(issued.ChallengeId, received.Details["challengeId"], "challenge.received names the challenge");
            Check.That(received.Message.Contains("challenged you: beat this!"), "the message: " + received.Message);
            await boFeed.UntilAsync(() => shown.Count == 1, "the game's handler showed the challenge");
            Check.Equal(issued.ChallengeId + " " + received.Message, shown[0], "what the handler got");
            var pending = await bo.GetReceivedChallengesAsync("dash", "pending");
            Check.Sequence(new[] { issued.ChallengeId }, pending.Select(c => c.ChallengeId), "Bo's pending challenges");

            // Bo beats it: both hear of the completion live.
            await bo.SubmitScoreAsync("dash", Board, 1500);
            var done = await annFeed.WaitForAsync("challenge.completed-by-receiver");
            Check.That(done.Message.Contains("(1500 against 1200)"), "Ann's notification: " + done.Message);
            Check.Equal(bo.PlayerId, done.Details["receiverId"], "the receiver who completed it");
            var completed = await boFeed.WaitForAsync("challenge.completed");
            Check.Equal(issued.ChallengeId, completed.Details["challengeId"], "Bo's completion names the challenge");
            await boFeed.UntilAsync(() => UnityEngine.Debug.Console().Any(l => l == "log: " + completed.Message), "the sample's handler logged it");
            var after = await ann.GetChallengeAsync("dash", issued.ChallengeId);
            var bosPart = after.Receiver(bo.PlayerId);
            Check.Equal("completed", bosPart.State, "Bo completed it");
            Check.Equal<long?>(1500, bosPart.Value, "with 1500");

            // Ann's friends leaderboard: Bo above her.
            var friendsTop = await ann.GetFriendsTopAsync("dash", Board);
            Check.Sequence(new[] { bo.PlayerId, ann.PlayerId }, friendsTop.Entries.Select(e => e.PlayerId), "friends ranked among themselves");
            Check.Sequence(new[] { 1L, 2L }, friendsTop.Entries.Select(e => e.Rank), "ranks 1 and 2");
            Check.Equal(2L, friendsTop.Total, "two in the friends scope");

            // The inbox kept it all: Ann reads and marks her completion.
            var inbox = await ann.GetInboxAsync("dash", kinds: new[] { "challenge.completed-by-receiver" });
            var item = inbox.Items.Single();
            Check.Equal(done.InboxId, item.Id, "the live notification's inboxId is the kept item");
            Check.Equal(done.CorrelationId, item.CorrelationId, "the same correlation");
            Check.That(!item.Read && inbox.Unread >= 2, "unread (friend.accepted and the completion)");
            Check.Equal(1L, await ann.MarkReadAsync("dash", new[] { done.InboxId }), "one marked read");
            Check.Equal(inbox.Unread - 1, await ann.GetUnreadCountAsync("dash"), "one fewer unread");
        }
    }
}
